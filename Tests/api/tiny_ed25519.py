"""Ed25519 signing in pure Python (RFC 8032, section 6), so the test can speak the phone's
side of the backend wire without a native crypto package. Slow, not constant-time: for tests
only."""

import hashlib

_p = 2**255 - 19
_d = -121665 * pow(121666, -1, _p) % _p
_q = 2**252 + 27742317777372353535851937790883648493
_sqrt_m1 = pow(2, (_p - 1) // 4, _p)


def _add(P, Q):
    a = (P[1] - P[0]) * (Q[1] - Q[0]) % _p
    b = (P[1] + P[0]) * (Q[1] + Q[0]) % _p
    c = 2 * P[3] * Q[3] * _d % _p
    d = 2 * P[2] * Q[2] % _p
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f, g * h, f * g, e * h)


def _mul(s, P):
    Q = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            Q = _add(Q, P)
        P = _add(P, P)
        s >>= 1
    return Q


def _recover_x(y, sign):
    if y >= _p:
        return None
    x2 = (y * y - 1) * pow(_d * y * y + 1, -1, _p)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_p + 3) // 8, _p)
    if (x * x - x2) % _p != 0:
        x = x * _sqrt_m1 % _p
    if (x * x - x2) % _p != 0:
        return None
    if (x & 1) != sign:
        x = _p - x
    return x


_gy = 4 * pow(5, -1, _p) % _p
_gx = _recover_x(_gy, 0)
_G = (_gx, _gy, 1, _gx * _gy % _p)


def _compress(P):
    zinv = pow(P[2], -1, _p)
    x, y = P[0] * zinv % _p, P[1] * zinv % _p
    return int.to_bytes(y | ((x & 1) << 255), 32, "little")


def _decompress(data):
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % _p)


def _equal(P, Q):
    return (P[0] * Q[2] - Q[0] * P[2]) % _p == 0 and (P[1] * Q[2] - Q[1] * P[2]) % _p == 0


def _expand(seed):
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    return a, h[32:]


def _hash_mod_q(data):
    return int.from_bytes(hashlib.sha512(data).digest(), "little") % _q


def public_key(seed: bytes) -> bytes:
    """The 32-byte public key of a 32-byte secret seed."""
    a, _ = _expand(seed)
    return _compress(_mul(a, _G))


def sign(seed: bytes, message: bytes) -> bytes:
    """The 64-byte signature of message with the key of seed."""
    a, prefix = _expand(seed)
    A = _compress(_mul(a, _G))
    r = _hash_mod_q(prefix + message)
    R = _compress(_mul(r, _G))
    s = (r + _hash_mod_q(R + A + message) * a) % _q
    return R + int.to_bytes(s, 32, "little")


def verify(public: bytes, message: bytes, signature: bytes) -> bool:
    """Whether signature is public's signature of message."""
    if len(signature) != 64:
        return False
    A, R = _decompress(public), _decompress(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if A is None or R is None or s >= _q:
        return False
    h = _hash_mod_q(signature[:32] + public + message)
    return _equal(_mul(s, _G), _add(R, _mul(h, A)))
