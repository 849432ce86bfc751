#!/usr/bin/env python3
"""pymongo's C-accelerated `bson` on the BSON documents the Swift benchmark wrote, timed the same
way (median of interleaved samples), printed beside the Swift numbers as one Markdown table.

Usage: bson_pymongo.py DIR   (DIR holds NAME.bson and swift.json from CodecBenchmarks --bson-out)
"""
import json
import os
import statistics
import sys
import time

import bson

SAMPLE_SECONDS = 0.02  # replaced by the Swift side's sample length


def calibrate(operation):
    """Operations per sample of about SAMPLE_SECONDS."""
    for _ in range(10):
        operation()
    count = 1
    while True:
        start = time.perf_counter_ns()
        for _ in range(count):
            operation()
        elapsed = time.perf_counter_ns() - start
        if elapsed >= SAMPLE_SECONDS * 1e9 / 4:
            return max(1, int(count * SAMPLE_SECONDS * 1e9 / elapsed))
        count *= 2


def measure(candidates, samples):
    """Median ns per operation of each candidate, samples taken in turn."""
    counts = [calibrate(operation) for operation in candidates]
    results = [[] for _ in candidates]
    for _ in range(samples):
        for index, operation in enumerate(candidates):
            count = counts[index]
            start = time.perf_counter_ns()
            for _ in range(count):
                operation()
            results[index].append((time.perf_counter_ns() - start) / count)
    return [statistics.median(values) for values in results]


def grouped(value, decimals=0):
    return f"{value:,.{decimals}f}"


def main():
    directory = sys.argv[1]
    if not bson.has_c():
        sys.exit("pymongo's bson C extension is not loaded (bson.has_c() is False); pip install pymongo")
    with open(os.path.join(directory, "swift.json")) as file:
        swift = json.load(file)
    samples = swift["samples"]
    global SAMPLE_SECONDS
    SAMPLE_SECONDS = swift.get("sampleMilliseconds", 20) / 1000

    rows = []
    for row in swift["rows"]:
        with open(os.path.join(directory, row["payload"] + ".bson"), "rb") as file:
            data = file.read()
        document = bson.decode(data)
        identical = bson.encode(document) == data
        decode_ns, encode_ns = measure([lambda: bson.decode(data), lambda: bson.encode(document)], samples)
        rows.append((row, len(data), identical, decode_ns, encode_ns))

    version = getattr(bson, "__version__", None)
    try:
        import pymongo
        version = pymongo.version
    except ImportError:
        pass
    print(f"### BSON beside pymongo {version} (`bson` C extension: {bson.has_c()})\n")
    print("ns/message (MB/s). Ours: bytes ↔ `BSONDocument`, and bytes ↔ the generated type (`SDLBSON`, "
          "encoding validates first). pymongo: bytes ↔ `dict` (`bson.decode`/`bson.encode`).\n")
    print("| Payload | Bytes | decode BSONDocument | decode generated type | pymongo decode | BSONDocument vs pymongo "
          "| encode BSONDocument | encode generated type | pymongo encode | BSONDocument vs pymongo | pymongo re-encodes our bytes |")
    print("| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |")

    def cell(ns, size):
        return f"{grouped(ns)} ({grouped(size / ns * 1000, 1)})"

    totals = [0.0] * 6
    total_bytes = 0
    for row, size, identical, decode_ns, encode_ns in rows:
        values = [row["decodeDocument"], row["decodeTyped"], decode_ns, row["encodeDocument"], row["encodeTyped"], encode_ns]
        totals = [a + b for a, b in zip(totals, values)]
        total_bytes += size
        print(f"| {row['payload']} | {grouped(size)} | {cell(values[0], size)} | {cell(values[1], size)} | "
              f"{cell(values[2], size)} | {values[2] / values[0]:.2f}× | {cell(values[3], size)} | "
              f"{cell(values[4], size)} | {cell(values[5], size)} | {values[5] / values[3]:.2f}× | "
              f"{'yes' if identical else 'NO'} |")
    print(f"| **Corpus (one of each)** | {grouped(total_bytes)} | {cell(totals[0], total_bytes)} | "
          f"{cell(totals[1], total_bytes)} | {cell(totals[2], total_bytes)} | {totals[2] / totals[0]:.2f}× | "
          f"{cell(totals[3], total_bytes)} | {cell(totals[4], total_bytes)} | {cell(totals[5], total_bytes)} | "
          f"{totals[5] / totals[3]:.2f}× | |")
    print(f"\n\"vs pymongo\" is pymongo's time over ours (above 1: ours is faster). Median of {samples} samples "
          f"of about {int(SAMPLE_SECONDS * 1000)} ms each, as on the Swift side.")
    print("\nAllocations per message (malloc calls), Swift side: " + ", ".join(
        f"{row['payload']} {grouped(row['decodeDocumentAllocations'])}/{grouped(row['decodeTypedAllocations'])}/"
        f"{grouped(row['encodeDocumentAllocations'])}/{grouped(row['encodeTypedAllocations'])}"
        for row, *_ in rows) + " (decode document/decode typed/encode document/encode typed).")


if __name__ == "__main__":
    main()
