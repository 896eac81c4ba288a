#!/usr/bin/env python3
"""An independent implementation of the offline OTP (docs/otp.md), in Python: it prints the
test vectors that Tests/OTPTests check the Swift implementation against."""
import hmac, hashlib, struct
A = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
def crock(v, n): return "".join(A[(v >> (5*(n-1-i))) & 31] for i in range(n))
def otp(key, session, ref, step):
    s = session.encode()
    msg = b"AuthPhone offline OTP v1\x00" + struct.pack(">I", len(s)) + s + struct.pack(">I", ref) + struct.pack(">q", step)
    mac = hmac.new(key, msg, hashlib.sha256).digest()
    o = mac[-1] & 15
    v = ((mac[o] & 0x7f) << 24 | mac[o+1] << 16 | mac[o+2] << 8 | mac[o+3]) & ((1 << 30) - 1)
    return crock(ref, 6) + " " + crock(v, 6)
key = bytes(range(32))  # 00 01 02 … 1f
print("session, reference, unix time, step, OTP")
cases = [("qGbSGmTd0aJ3yC1kDk7gkCZsJdYVbAFh", 0, 0), ("qGbSGmTd0aJ3yC1kDk7gkCZsJdYVbAFh", 123456789, 1_790_000_000),
         ("qGbSGmTd0aJ3yC1kDk7gkCZsJdYVbAFh", 123456789, 1_790_000_119), ("another-session", 123456789, 1_790_000_000),
         ("qGbSGmTd0aJ3yC1kDk7gkCZsJdYVbAFh", (1<<30)-1, 2_000_000_000)]
for session, ref, t in cases:
    print(session, ref, t, t//120, otp(key, session, ref, t//120))
print("key ff×32:", otp(bytes([0xff]*32), "qGbSGmTd0aJ3yC1kDk7gkCZsJdYVbAFh", 123456789, 1_790_000_000//120))
