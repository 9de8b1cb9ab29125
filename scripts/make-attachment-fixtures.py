#!/usr/bin/env python3
"""Writes small, real media files of every attachment type the emulator accepts, plus corrupt ones.

Used by the attachment-validation tests and the extension scenarios (no image library needed: each format
is assembled from its specification). Run from the repository root:

    python3 scripts/make-attachment-fixtures.py OUTPUT_DIR
"""
import struct
import sys
import wave
import zlib
from pathlib import Path


def png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)          # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")                    # filter 0, one red pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def gif() -> bytes:
    # GIF89a, 1x1, two-colour global table, one image, LZW min code size 2.
    return (b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0x80, 0, 0) + b"\xff\x00\x00\x00\x00\x00"
            + b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00" + b"\x3b")


def jpeg() -> bytes:
    # A baseline 1x1 greyscale JPEG (SOI, JFIF APP0, DQT, SOF0, DHT x2, SOS, one MCU, EOI).
    return bytes.fromhex(
        "ffd8ffe000104a46494600010100000100010000"
        "ffdb004300" + "01" * 64 +
        "ffc0000b080001000101011100"
        "ffc4001f0000010501010101010100000000000000000102030405060708090a0b"
        "ffc400b5100002010303020403050504040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa"
        "ffda0008010100003f00d2cf20"
        "ffd9")


def tiff() -> bytes:
    # Little-endian baseline TIFF, 1x1 greyscale, uncompressed.
    entries = [(256, 3, 1, 1), (257, 3, 1, 1), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, 1, 8 + 2 + len([0] * 9) * 12 + 4), (277, 3, 1, 1), (278, 3, 1, 1), (279, 4, 1, 1)]
    ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", *e) for e in entries) + struct.pack("<I", 0)
    return b"II*\x00" + struct.pack("<I", 8) + ifd + b"\x80"


def box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def movie(brand: bytes, seconds: int) -> bytes:
    """ftyp + moov/mvhd: a QuickTime or MP4 file whose header says `seconds` long."""
    ftyp = box(b"ftyp", brand + struct.pack(">I", 0) + brand)
    mvhd = box(b"mvhd", struct.pack(">BBBB", 0, 0, 0, 0) + struct.pack(">IIII", 0, 0, 1000, seconds * 1000)
               + struct.pack(">IH", 0x00010000, 0x0100) + b"\x00" * 10
               + struct.pack(">9I", 0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000) + b"\x00" * 24
               + struct.pack(">I", 2))
    return ftyp + box(b"moov", mvhd) + box(b"mdat", b"\x00" * 16)


def mpeg() -> bytes:
    pack = b"\x00\x00\x01\xba" + bytes.fromhex("440004000401018003f8")
    return pack + b"\x00\x00\x01\xe0\x00\x04\x80\x00\x00\x00" + b"\x00\x00\x01\xb9"


def mp3() -> bytes:
    # ID3v2 header (empty) + one MPEG-1 Layer III frame, 128 kbit/s, 44.1 kHz: 417 bytes.
    return b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x90\x44" + b"\x00" * 413


def aac() -> bytes:
    # One ADTS frame (AAC-LC, 44.1 kHz, stereo) with an empty raw block.
    length = 7 + 2
    header = bytes([0xFF, 0xF1, 0x50, 0x80 | ((length >> 11) & 0x3), (length >> 3) & 0xFF, ((length & 0x7) << 5) | 0x1F, 0xFC])
    return header + b"\x21\x00"


def wav(path: Path) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x00" * 800)


def caf() -> bytes:
    desc = struct.pack(">dIIIIII", 44100.0, int.from_bytes(b"lpcm", "big"), 0, 2, 1, 1, 16)
    return (b"caff" + struct.pack(">HH", 1, 0) + b"desc" + struct.pack(">q", len(desc)) + desc
            + b"data" + struct.pack(">q", 4 + 8) + struct.pack(">I", 0) + b"\x00" * 8)


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "Tests/VirtualDevicesTests/Fixtures")
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "image.png": png(), "image.gif": gif(), "image.jpg": jpeg(), "image.tiff": tiff(),
        "clip.mp4": movie(b"isom", 5), "clip.mov": movie(b"qt  ", 5), "long.mp4": movie(b"isom", 45),
        "clip.mpg": mpeg(), "sound.mp3": mp3(), "sound.aac": aac(), "sound.caf": caf(),
        "sound.m4a": movie(b"M4A ", 45),
        "corrupt.jpg": b"\xff\xd8\x00 not really a jpeg",
        "document.pdf": b"%PDF-1.4\n% not a media type\n",
        "empty.png": b"",
    }
    for name, data in files.items():
        (out / name).write_bytes(data)
    wav(out / "sound.wav")


if __name__ == "__main__":
    main()
