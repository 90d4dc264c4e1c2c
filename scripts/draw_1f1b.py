"""Draw the 1F1B pipeline schedule used by source/zero-memory-arithmetic.yaml (source/img/1f1b-schedule.svg).

A small simulation, not a hand drawing: p stages, m micro-batches, a backward pass twice as
long as a forward one. Each stage runs min(p - s - 1, m) warm-up forwards, then alternates one
forward and one backward, then drains its remaining backwards; a forward waits for the stage
before it, a backward for the stage after it. The output is deterministic (same bytes every
run): `python scripts/draw_1f1b.py > source/img/1f1b-schedule.svg`.
"""

from __future__ import annotations

import sys

P, M = 4, 8
F, B = 1, 2  # time units of a forward and a backward pass
UNIT, ROW, LEFT, TOP = 18, 30, 70, 34


def schedule(p: int, m: int) -> dict[tuple[str, int, int], tuple[int, int]]:
    """(kind, stage, micro-batch) -> (start, end) in time units."""
    orders: list[list[tuple[str, int]]] = []
    for s in range(p):
        warm = min(p - s - 1, m)
        order = [("F", i) for i in range(warm)]
        f, b = warm, 0
        while b < m:
            if f < m:
                order.append(("F", f))
                f += 1
            order.append(("B", b))
            b += 1
        orders.append(order)
    done: dict[tuple[str, int, int], tuple[int, int]] = {}
    free = [0] * p
    pos = [0] * p
    while any(pos[s] < len(orders[s]) for s in range(p)):
        progressed = False
        for s in range(p):
            if pos[s] == len(orders[s]):
                continue
            kind, i = orders[s][pos[s]]
            dep = (
                ("F", s - 1, i)
                if kind == "F" and s > 0
                else ("B", s + 1, i)
                if kind == "B" and s < p - 1
                else None
            )
            if kind == "B" and s == p - 1:
                dep = ("F", s, i)
            if dep is not None and dep not in done:
                continue
            start = max(free[s], done[dep][1] if dep else 0)
            end = start + (F if kind == "F" else B)
            done[(kind, s, i)] = (start, end)
            free[s] = end
            pos[s] += 1
            progressed = True
        assert progressed, "the schedule deadlocked"
    return done


def svg(p: int, m: int) -> str:
    ops = schedule(p, m)
    length = max(end for _, end in ops.values())
    width = LEFT + length * UNIT + 10
    height = TOP + p * ROW + 30
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f"  <title>1F1B pipeline schedule: {p} stages, {m} micro-batches</title>",
        f'  <text x="{LEFT}" y="16" font-size="12">time → (forward = 1 unit, backward = 2 units)</text>',
    ]
    for s in range(p):
        y = TOP + s * ROW
        out.append(f'  <text x="8" y="{y + 18}">GPU {s}</text>')
        out.append(
            f'  <rect x="{LEFT}" y="{y}" width="{length * UNIT}" height="{ROW - 6}" fill="#f2f2f2" stroke="#999"/>'
        )
    for (kind, s, i), (start, end) in sorted(ops.items(), key=lambda kv: (kv[0][1], kv[1][0])):
        x, y, w = LEFT + start * UNIT, TOP + s * ROW, (end - start) * UNIT
        fill = "#9cc3e6" if kind == "F" else "#a9d18e"
        out.append(f'  <rect x="{x}" y="{y}" width="{w}" height="{ROW - 6}" fill="{fill}" stroke="#333"/>')
        out.append(f'  <text x="{x + w / 2:g}" y="{y + 16}" text-anchor="middle">{kind}{i + 1}</text>')
    legend = TOP + p * ROW + 8
    out.append(f'  <rect x="{LEFT}" y="{legend}" width="14" height="12" fill="#9cc3e6" stroke="#333"/>')
    out.append(f'  <text x="{LEFT + 20}" y="{legend + 10}">forward (F)</text>')
    out.append(f'  <rect x="{LEFT + 110}" y="{legend}" width="14" height="12" fill="#a9d18e" stroke="#333"/>')
    out.append(f'  <text x="{LEFT + 130}" y="{legend + 10}">backward (B)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(svg(P, M))
