#!/usr/bin/env python3
"""Per-request instruction counts by function from two callgrind runs of the same case.

Usage: cgdiff.py SMALL.out LARGE.out REQUESTS_DIFFERENCE [TOP] [--exclusive]

Runs callgrind_annotate on both files and prints (LARGE - SMALL) / REQUESTS_DIFFERENCE for each
function, largest first: start-up cost cancels out, what is left is the cost of one request.
"""
import re
import subprocess
import sys


def table(path, inclusive):
    out = subprocess.run(
        ["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100", path],
        capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*)$", line)
        if m and "PROGRAM TOTALS" not in line:
            name = re.sub(r"\s*\[[^\]]*\]$", "", m.group(2))
            rows[name] = rows.get(name, 0) + int(m.group(1).replace(",", ""))
    return rows


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    inclusive = "--exclusive" not in sys.argv
    small, large, n = args[0], args[1], float(args[2])
    top = int(args[3]) if len(args) > 3 else 60
    a, b = table(small, inclusive), table(large, inclusive)
    diff = sorted(((b.get(k, 0) - a.get(k, 0)) / n, k) for k in set(a) | set(b))
    for v, k in reversed(diff[-top:]):
        print(f"{v:10.0f}  {k[:170]}")


if __name__ == "__main__":
    main()
