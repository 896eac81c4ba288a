// A fuzz target that fails on purpose: scripts/fuzz.sh runs it through its gate on every run and
// requires the gate to refuse it, so a gate that stopped noticing failures cannot pass unseen.
import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCanary(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    switch String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self) {
    case "crash": fatalError("canary: crash marker")
    case "hang": while true { sleep(1) }
    case "oom": return CInt([UInt8](repeating: 1, count: 1 << 30).count & 1)  // 1 GiB, over the canary's limit
    default: return 0
    }
}
