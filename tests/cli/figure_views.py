#!/usr/bin/env python3
"""figure_views.py SVG PNG_STATS PNG TEXT... — checks a chart or matrix figure by content: the SVG is well-formed,
holds every TEXT (instance names, axis labels, legend entries), and the PNG drawn from the same canvas has the SVG's
size and shows every series colour the SVG strokes or fills (png_stats). Options before the texts:
  --min-polylines K   at least K polylines (series lines, guides, boundaries)
  --min-rings K       at least K ring markers (the Pareto front)
  --min-polygons K    at least K polygons (bands)
  --count TEXT=K      TEXT occurs at least K times (e.g. bucket boundaries)
  --min-values K      at least K texts that are a decimal number (a grid's cells)
  --scale S           the PNG was drawn at S pixels per SVG unit (default 1: 96 dpi)"""
import re, subprocess, sys, xml.dom.minidom

svg_path, stats, png_path = sys.argv[1:4]
args = sys.argv[4:]
need = {"polyline": 0, "ring": 0, "polygon": 0, "value": 0}
counts, texts = [], []
scale = 1.0
while args:
    a = args.pop(0)
    if a == "--min-polylines": need["polyline"] = int(args.pop(0))
    elif a == "--min-rings": need["ring"] = int(args.pop(0))
    elif a == "--min-polygons": need["polygon"] = int(args.pop(0))
    elif a == "--min-values": need["value"] = int(args.pop(0))
    elif a == "--scale": scale = float(args.pop(0))
    elif a == "--count":
        t, k = args.pop(0).rsplit("=", 1)
        counts.append((t, int(k)))
    else: texts.append(a)

svg = open(svg_path, encoding="utf-8").read()
doc = xml.dom.minidom.parseString(svg.encode("utf-8"))
words = "\n".join(n.firstChild.data for n in doc.getElementsByTagName("text") if n.firstChild)
fail = []
for t in texts:
    if t not in words: fail.append(f"text '{t}' missing")
for t, k in counts:
    if svg.count(t) < k: fail.append(f"'{t}' occurs {svg.count(t)} times, needs {k}")
polylines = doc.getElementsByTagName("polyline")
rings = [c for c in doc.getElementsByTagName("circle") if c.getAttribute("fill") == "none"]
polygons = doc.getElementsByTagName("polygon")
values = [n for n in doc.getElementsByTagName("text") if n.firstChild and re.fullmatch(r"-?\d+\.\d+", n.firstChild.data)]
for name, found in (("polyline", len(polylines)), ("ring", len(rings)), ("polygon", len(polygons)), ("value", len(values))):
    if found < need[name]: fail.append(f"{found} {name}s, needs {need[name]}")

# The series colours: strokes of lines wider than 2 px and fills of markers, leaving out greys.
def saturated(c):
    r, g, b = (int(c[i:i + 2], 16) for i in (1, 3, 5))
    return max(r, g, b) - min(r, g, b) > 40
colours = set()
for p in polylines:
    if float(p.getAttribute("stroke-width") or 0) >= 2 and saturated(p.getAttribute("stroke")): colours.add(p.getAttribute("stroke")[1:])
for c in doc.getElementsByTagName("circle"):
    if c.getAttribute("fill") not in ("", "none") and saturated(c.getAttribute("fill")): colours.add(c.getAttribute("fill")[1:])

root = doc.documentElement
width = float(root.getAttribute("width"))
out = subprocess.run([stats, png_path, "64", "--max-share", "0.985", *sorted(colours)], capture_output=True, text=True)
print(out.stdout.strip())
if out.returncode != 0: fail.append("the PNG lacks content or a series colour of the SVG: " + out.stdout.strip())
m = re.search(r": (\d+)x(\d+),", out.stdout)
if not m or abs(int(m.group(1)) - width * scale) > 1:
    fail.append(f"PNG width {m and m.group(1)} differs from the SVG's {width} × {scale}")
if fail:
    print(f"{svg_path}: " + "; ".join(fail))
    sys.exit(1)
print(f"{svg_path}: {len(texts)} texts, {len(polylines)} polylines, {len(rings)} rings, {len(polygons)} polygons, colours {sorted(colours)}")
