#!/usr/bin/env python3
"""Writes a corpus of BSON documents encoded by pymongo's `bson` module, one JSON line each.

Each line is {"name": ..., "doc": [[key, value], ...], "bson": "<hex of bson.encode(doc)>"}, where
a value is typed so the Swift test can rebuild the document exactly:

    {"t": "double", "v": "<16 hex digits: the IEEE-754 bit pattern, so NaN and -0.0 survive>"}
    {"t": "string", "v": "..."}            {"t": "document", "v": [[key, value], ...]}
    {"t": "array", "v": [value, ...]}      {"t": "binary", "s": subtype, "v": "<hex payload>"}
    {"t": "bool", "v": true}               {"t": "null"}
    {"t": "int32", "v": 5}                 {"t": "int64", "v": 5}

The description is made from the Python values by pymongo's own rules (a plain int is int32 when
it fits, else int64; bson.Int64 is always int64; bytes are binary subtype 0; subtype 2 carries
an inner length), then checked against a small independent parse of the bytes pymongo wrote, so
a line never claims a type pymongo did not write.

Deterministic: the random part is seeded and uses only functions whose output Python keeps stable.

Usage: bson_corpus.py [OUTPUT]   (default: standard output)
Needs pymongo (`python3 -m pip install pymongo`).
"""

import json
import math
import random
import struct
import sys

import bson
from bson.binary import Binary
from bson.int64 import Int64

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
SEED = 0x5D1_B503
RANDOM_DOCUMENTS = 240


def f64(bits):
    """The double with this bit pattern."""
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def bits(value):
    """The bit pattern of a double, as 16 hex digits."""
    return "%016x" % struct.unpack("<Q", struct.pack("<d", value))[0]


# MARK: - Description from Python values (pymongo's type rules)


def describe(value):
    # bool before int and Int64 before int: both are int subclasses.
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, Int64):
        return {"t": "int64", "v": int(value)}
    if isinstance(value, int):
        return {"t": "int32" if INT32_MIN <= value <= INT32_MAX else "int64", "v": value}
    if isinstance(value, float):
        return {"t": "double", "v": bits(value)}
    if isinstance(value, str):
        return {"t": "string", "v": value}
    if isinstance(value, dict):
        return {"t": "document", "v": describe_pairs(value)}
    if isinstance(value, (list, tuple)):
        return {"t": "array", "v": [describe(item) for item in value]}
    if isinstance(value, Binary):  # before bytes: Binary subclasses bytes
        payload = bytes(value)
        if value.subtype == 2:  # the "old" subtype: pymongo prefixes the payload with its length
            payload = struct.pack("<i", len(payload)) + payload
        return {"t": "binary", "s": value.subtype, "v": payload.hex()}
    if isinstance(value, bytes):
        return {"t": "binary", "s": 0, "v": value.hex()}
    if value is None:
        return {"t": "null"}
    raise TypeError("unsupported value %r" % (value,))


def describe_pairs(document):
    return [[key, describe(value)] for key, value in document.items()]


# MARK: - Description from the bytes (independent of pymongo's decoder)


class Parser:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, count):
        assert count >= 0 and self.pos + count <= len(self.data), "truncated"
        chunk = self.data[self.pos : self.pos + count]
        self.pos += count
        return chunk

    def unpack(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def cstring(self):
        end = self.data.index(0, self.pos)
        text = self.data[self.pos : end].decode("utf-8")
        self.pos = end + 1
        return text

    def document(self):
        start, length = self.pos, self.unpack("<i")
        pairs = []
        while (code := self.unpack("<B")) != 0:
            key = self.cstring()
            pairs.append([key, self.value(code)])
        assert self.pos - start == length, "length mismatch"
        return pairs

    def value(self, code):
        if code == 0x01:
            return {"t": "double", "v": "%016x" % self.unpack("<Q")}
        if code == 0x02:
            raw = self.take(self.unpack("<i"))
            assert raw[-1] == 0
            return {"t": "string", "v": raw[:-1].decode("utf-8")}
        if code == 0x03:
            return {"t": "document", "v": self.document()}
        if code == 0x04:
            pairs = self.document()
            assert [key for key, _ in pairs] == [str(i) for i in range(len(pairs))]
            return {"t": "array", "v": [value for _, value in pairs]}
        if code == 0x05:
            length = self.unpack("<i")
            subtype = self.unpack("<B")
            return {"t": "binary", "s": subtype, "v": self.take(length).hex()}
        if code == 0x08:
            return {"t": "bool", "v": {0: False, 1: True}[self.unpack("<B")]}
        if code == 0x0A:
            return {"t": "null"}
        if code == 0x10:
            return {"t": "int32", "v": self.unpack("<i")}
        if code == 0x12:
            return {"t": "int64", "v": self.unpack("<q")}
        raise AssertionError("type 0x%02x" % code)


def parse(data):
    parser = Parser(data)
    pairs = parser.document()
    assert parser.pos == len(data), "trailing bytes"
    return pairs


# MARK: - Hand-written edge cases

PI = 3.141592653589793
DOUBLES = {
    "zero": 0.0,
    "negative-zero": -0.0,
    "one": 1.0,
    "minus-one": -1.0,
    "pi": PI,
    "tenth": 0.1,
    "1e308": 1e308,
    "max": f64(0x7FEF_FFFF_FFFF_FFFF),
    "min-normal": f64(0x0010_0000_0000_0000),
    "max-subnormal": f64(0x000F_FFFF_FFFF_FFFF),
    "min-subnormal": f64(0x0000_0000_0000_0001),
    "negative-subnormal": f64(0x8000_0000_0000_0001),
    "infinity": float("inf"),
    "negative-infinity": float("-inf"),
    "nan": float("nan"),
    "negative-nan": f64(0xFFF8_0000_0000_0000),
    "nan-payload": f64(0x7FF8_0000_DEAD_BEEF),
    "signaling-nan": f64(0x7FF0_0000_0000_0001),
    "2^53+1": float(2**53 + 1),
}

INTEGERS = {
    "zero": 0,
    "minus-one": -1,
    "one": 1,
    "int32-min": INT32_MIN,
    "int32-max": INT32_MAX,
    # One past int32 on either side: pymongo switches to int64 on its own.
    "int32-max+1": INT32_MAX + 1,
    "int32-min-1": INT32_MIN - 1,
    "int64-min": INT64_MIN,
    "int64-max": INT64_MAX,
    # Small values forced to int64, as SDL's `mtu` is.
    "int64-zero": Int64(0),
    "int64-minus-one": Int64(-1),
    "int64-small": Int64(131084),
    "int64-int32-min": Int64(INT32_MIN),
}

STRINGS = {
    "empty": "",
    "ascii": "protocolVersion",
    "latin": "Crème brûlée, Straße",
    "nfc": "\u00e9",
    "nfd": "e\u0301",  # same text as "nfc" to a person, other bytes on the wire
    "combining-stack": "a\u0301\u0302\u0303\u0304\u0323",
    "cjk": "中文字幕 日本語 한국어",
    "rtl": "مرحبا بالعالم",
    "emoji": "😀🚗",
    "emoji-zwj": "👩\u200d👩\u200d👧\u200d👦",
    "flag": "🇩🇪",
    "astral": "𝄞𐍈",
    "bom": "\ufeffx",
    "embedded-nul": "a\x00b",
    "controls": "\x01\t\n\r\x1f\x7f",
    "max-scalars": "\u07ff\uffff\U0010ffff",
    "long": "SDL " * 2500,
}

KEYS = {
    "empty": "",
    "unicode": "clé",
    "nfd": "cle\u0301",
    "emoji": "🚗",
    "cjk": "键",
    "dollar": "$set",
    "dotted": "a.b",
    "digits": "0",
    "space": " ",
    "long": "k" * 300,  # SDL's C library would cut it at 254 bytes; BSON itself has no limit
}

BINARIES = {
    "generic": Binary(b"\x00\x01\x02\xff", 0),
    "bytes": b"raw bytes",
    "empty": b"",
    "function": Binary(b"f()", 1),
    "old": Binary(b"old binary", 2),
    "old-empty": Binary(b"", 2),
    "uuid-old": Binary(bytes(range(16)), 3),
    "uuid": Binary(bytes(range(16, 32)), 4),
    "md5": Binary(bytes(16), 5),
    "encrypted": Binary(b"\x01secret", 6),
    "column": Binary(b"\x07", 7),
    "sensitive": Binary(b"pin", 8),
    "user-0x80": Binary(b"\x80", 0x80),
    "user-0xff": Binary(bytes(range(256)), 0xFF),
}


def nested_documents(depth):
    document = {}
    for level in range(depth):
        document = {"level%d" % level: document}
    return document


def nested_arrays(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def edge_cases():
    yield "empty", {}
    for name, value in DOUBLES.items():
        yield "double/" + name, {"d": value}
    yield "double/all", {name: value for name, value in DOUBLES.items()}
    for name, value in INTEGERS.items():
        yield "integer/" + name, {"i": value}
    yield "integer/all", dict(INTEGERS)
    for name, value in STRINGS.items():
        yield "string/" + name, {"s": value}
    yield "string/nfc-and-nfd", {"nfc": STRINGS["nfc"], "nfd": STRINGS["nfd"]}
    for name, key in KEYS.items():
        yield "key/" + name, {key: 1}
    yield "key/nfc-and-nfd", {"cl\u00e9": 1, KEYS["nfd"]: 2}
    yield "key/order", {"b": 1, "a": 2, "c": 3, "0": 4}
    for name, value in BINARIES.items():
        yield "binary/" + name, {"b": value}
    yield "bool/true", {"b": True}
    yield "bool/false", {"b": False}
    yield "null", {"n": None}
    yield "every-type", {
        "double": 1.5, "string": "s", "document": {"x": 1}, "array": [1, "two", 3.0],
        "binary": b"\x01", "bool": True, "null": None, "int32": 7, "int64": Int64(7),
    }
    yield "nesting/empty-document", {"d": {}}
    yield "nesting/empty-array", {"a": []}
    yield "nesting/empties", {"a": [[], {}, [{}], {"x": []}], "d": {"e": {}}}
    yield "nesting/documents-in-arrays-in-documents", {
        "outer": {"list": [{"inner": {"list": [{"leaf": 1}, {"leaf": Int64(2)}]}}, {"x": None}]}
    }
    yield "nesting/array-of-arrays", {"m": [[1, 2], [3, [4, [5, []]]], ["a", ["b"]]]}
    yield "nesting/documents-40-deep", nested_documents(40)
    yield "nesting/arrays-40-deep", {"a": nested_arrays(40)}
    yield "nesting/wide-array", {"a": list(range(-500, 500))}
    # SDL's own control payloads (PROTOCOL.md §3.2, §12).
    yield "sdl/start-service", {"protocolVersion": "5.4.0"}
    yield "sdl/start-service-ack", {
        "protocolVersion": "5.4.0", "hashId": 42, "mtu": Int64(131084),
        "secondaryTransports": ["TCP_WIFI"], "audioServiceTransports": [1, 2], "videoServiceTransports": [2],
        "make": "SDL", "model": "Generic", "modelYear": "2019", "trim": "SE",
    }
    yield "sdl/end-service", {"hashId": 42}
    yield "sdl/start-service-nak", {"rejectedParams": ["videoProtocol", "videoCodec"], "reason": "unsupported"}
    yield "sdl/transport-event-update", {"tcpIpAddress": "fd12:3456:789a::1", "tcpPort": 12345}


# MARK: - Seeded random documents

ALPHABET = (
    "abcxyzABCXYZ0129 _-.$/\\\"'"  # ASCII, including what JSON and paths escape
    "é ßñΩж"  # two bytes
    "€中한\u0301\u0308\u200d"  # three bytes, combining marks, zero-width joiner
    "😀🚗𝄞🇩"  # four bytes
)


def random_text(rng, allow_nul):
    alphabet = ALPHABET + ("\x00" if allow_nul else "")
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))


def random_double(rng):
    kind = rng.randrange(5)
    if kind == 0:
        return f64(rng.getrandbits(64))  # any pattern: NaNs with payloads, subnormals, infinities
    if kind == 1:
        return f64(rng.getrandbits(52) | rng.getrandbits(1) << 63)  # subnormal or zero
    if kind == 2:
        return float(rng.randrange(-(10**6), 10**6))
    if kind == 3:
        return rng.choice(list(DOUBLES.values()))
    # ldexp scales exactly (unlike 10.0 ** n, whose last bit depends on the C library).
    return math.ldexp(rng.random() - 0.5, rng.randrange(-1070, 1020))


def random_integer(rng):
    kind = rng.randrange(6)
    if kind == 0:
        return rng.randrange(-128, 128)
    if kind == 1:
        return rng.randrange(INT32_MIN, INT32_MAX + 1)
    if kind == 2:
        return rng.randrange(INT64_MIN, INT64_MAX + 1)  # int32 or int64 by size
    if kind == 3:
        return Int64(rng.randrange(INT64_MIN, INT64_MAX + 1))
    if kind == 4:
        return Int64(rng.randrange(-1000, 1000))
    return rng.choice([INT32_MIN, INT32_MAX, INT32_MIN - 1, INT32_MAX + 1, INT64_MIN, INT64_MAX])


def random_binary(rng):
    data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 24)))
    subtype = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0xFF])
    return data if subtype == 0 and rng.randrange(2) else Binary(data, subtype)


def random_value(rng, depth):
    scalars = [
        lambda: random_double(rng),
        lambda: random_text(rng, allow_nul=True),
        lambda: random_binary(rng),
        lambda: rng.randrange(2) == 1,
        lambda: None,
        lambda: random_integer(rng),
    ]
    if depth < 6 and rng.randrange(4) == 0:
        if rng.randrange(2):
            return random_document(rng, depth + 1)
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 5))]
    return rng.choice(scalars)()


def random_document(rng, depth):
    document = {}
    for _ in range(rng.randrange(0, 6)):
        document[random_text(rng, allow_nul=False)] = random_value(rng, depth)
    return document


def random_cases():
    rng = random.Random(SEED)
    for index in range(RANDOM_DOCUMENTS):
        yield "random/%03d" % index, random_document(rng, 0)


# MARK: - Output


def lines():
    for name, document in list(edge_cases()) + list(random_cases()):
        encoded = bson.encode(document)
        pairs = describe_pairs(document)
        assert parse(encoded) == pairs, "%s: the description does not match pymongo's bytes" % name
        entry = {"name": name, "doc": pairs, "bson": encoded.hex()}
        yield json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def main():
    text = "".join(line + "\n" for line in lines())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
