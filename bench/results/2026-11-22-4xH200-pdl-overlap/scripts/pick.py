"""Prints `export VAR=value` for the pipeline depth whose sweep had the lowest summed graph time.

usage: pick.py VAR ALGORITHM DEFAULT_DIR DEFAULT_VALUE [DIR VALUE]...
"""
import json
import sys

var, algorithm, *pairs = sys.argv[1:]
best = None
for directory, value in zip(pairs[0::2], pairs[1::2]):
    try:
        report = json.load(open(f"{directory}/report.json"))
    except OSError:
        continue
    total = 0.0
    for size in report["sizes"]:
        for m in size["measurements"]:
            if m["algorithm"] == algorithm:
                total += m["graphMicros"]
    print(f"# {var}={value}: {total:.1f} us summed", file=sys.stderr)
    if best is None or total < best[0]:
        best = (total, value)
print(f"export {var}={best[1]}")
