"""The keys a device of the test's own holds, through the `cryptography` package (OpenSSL): Ed25519
signatures over the wire's messages, and the X25519 half of the offline OTP key agreement with
libsodium's crypto_kx session key, so the backend is checked against an implementation it does not
share."""

import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519 as _ed25519
from cryptography.hazmat.primitives.asymmetric import x25519 as _x25519
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

_RAW = (Encoding.Raw, PublicFormat.Raw)


class ed25519:
    """RFC 8032 Ed25519 from a 32-byte seed (libsodium's crypto_sign_seed_keypair)."""

    @staticmethod
    def public_key(seed: bytes) -> bytes:
        return _ed25519.Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(*_RAW)

    @staticmethod
    def sign(seed: bytes, message: bytes) -> bytes:
        return _ed25519.Ed25519PrivateKey.from_private_bytes(seed).sign(message)

    @staticmethod
    def verify(public: bytes, message: bytes, signature: bytes) -> bool:
        try:
            _ed25519.Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
            return True
        except (InvalidSignature, ValueError):
            return False


class x25519:
    """X25519 and libsodium's crypto_kx client side."""

    @staticmethod
    def public_key(secret: bytes) -> bytes:
        return _x25519.X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes(*_RAW)

    @staticmethod
    def client_receive_key(client_secret: bytes, server_public: bytes) -> bytes:
        """crypto_kx_client_session_keys's rx: BLAKE2b-512(q || client_pk || server_pk)[:32], which
        equals the server's tx (the backend's sending key, the OTP key)."""
        shared = _x25519.X25519PrivateKey.from_private_bytes(client_secret).exchange(
            _x25519.X25519PublicKey.from_public_bytes(server_public))
        return hashlib.blake2b(shared + x25519.public_key(client_secret) + server_public, digest_size=64).digest()[:32]
