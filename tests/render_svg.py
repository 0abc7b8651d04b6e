#!/usr/bin/env python3
"""plan_graph's SVG picture renders in a real browser: draw a model with
--svg, screenshot it with headless Chromium, and check the PNG is a picture
(not blank: many non-white pixels, many colours).

    render_svg.py PLAN_GRAPH MODEL WORK_DIR [BROWSER]

Exit 77 (ctest: skipped) where no Chromium is installed.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib


def read_png(path):
    """(width, height, rows of RGB(A) tuples) from an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def main(plan_graph, model, work, browser=None):
    browser = browser or shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        print("SKIPPED: no Chromium installed (Debian: apt-get install chromium)")
        return 77
    os.makedirs(work, exist_ok=True)
    svg, png = os.path.join(work, "plan.svg"), os.path.join(work, "plan.png")
    for f in (svg, png):
        if os.path.exists(f):
            os.unlink(f)
    r = subprocess.run([plan_graph, "--svg", svg, model], capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(svg):
        print(f"FAIL: plan_graph --svg: exit {r.returncode}\n{r.stderr}")
        return 1
    text = open(svg).read()
    titles = text.count("<title>")
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update", "--disable-sync",
                            f"--user-data-dir={profile}", "--hide-scrollbars", "--window-size=1200,600",
                            f"--screenshot={png}", "file://" + os.path.abspath(svg)],
                           capture_output=True, text=True, timeout=120)
    if not os.path.exists(png):
        print(f"FAIL: Chromium wrote no screenshot (exit {r.returncode})\n{r.stderr[-2000:]}")
        return 1
    width, height, rows = read_png(png)
    pixels = [p for row in rows for p in row]
    non_white = sum(1 for p in pixels if p != (255, 255, 255))
    colours = len(set(pixels))
    print(f"{width}x{height} screenshot: {non_white / len(pixels):.1%} non-white pixels, {colours} colours, "
          f"{titles} hover titles in the SVG")
    ok = width == 1200 and height == 600 and non_white > 0.05 * len(pixels) and colours >= 20 and titles > 50
    print("ok" if ok else "FAIL: the picture looks blank or wrong")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
