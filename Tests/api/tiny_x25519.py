"""X25519 (RFC 7748, section 5) and libsodium's crypto_kx session keys in pure Python, so the
test can agree the offline OTP key (docs/otp.md) as the phone does, without a native crypto
package. Not constant-time: for tests only."""

import hashlib

_p = 2**255 - 19
_a24 = 121665


def _clamp(scalar):
    k = bytearray(scalar)
    k[0] &= 248
    k[31] &= 127
    k[31] |= 64
    return int.from_bytes(k, "little")


def x25519(scalar, u_bytes):
    """The Montgomery ladder of RFC 7748: scalar · u, both 32 bytes little-endian."""
    k = _clamp(scalar)
    u = int.from_bytes(u_bytes, "little") & ((1 << 255) - 1)
    x1, x2, z2, x3, z3, swap = u, 1, 0, u, 1, 0
    for t in reversed(range(255)):
        bit = (k >> t) & 1
        swap ^= bit
        if swap:
            x2, x3, z2, z3 = x3, x2, z3, z2
        swap = bit
        a, b = (x2 + z2) % _p, (x2 - z2) % _p
        aa, bb = a * a % _p, b * b % _p
        e = (aa - bb) % _p
        c, d = (x3 + z3) % _p, (x3 - z3) % _p
        da, cb = d * a % _p, c * b % _p
        x3, z3 = (da + cb) ** 2 % _p, x1 * (da - cb) ** 2 % _p
        x2, z2 = aa * bb % _p, e * (aa + _a24 * e) % _p
    if swap:
        x2, x3, z2, z3 = x3, x2, z3, z2
    return (x2 * pow(z2, _p - 2, _p) % _p).to_bytes(32, "little")


def public_key(secret):
    return x25519(secret, (9).to_bytes(32, "little"))


def client_receive_key(client_secret, server_public):
    """crypto_kx_client_session_keys's rx: BLAKE2b-512(q || client_pk || server_pk)[:32], which
    equals the server's tx (the backend's sending key, the OTP key)."""
    shared = x25519(client_secret, server_public)
    return hashlib.blake2b(shared + public_key(client_secret) + server_public, digest_size=64).digest()[:32]
