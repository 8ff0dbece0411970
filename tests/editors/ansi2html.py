#!/usr/bin/env python3
"""Render a terminal screen captured with `tmux capture-pane -e -p` (text
with SGR colour escapes) as a standalone HTML page: one <pre>, one <span>
per run of equally styled cells. Handles 16, 256 and 24-bit colours, bold,
italic, underline and reverse video; other escapes are dropped.

Usage: ansi2html.py CAPTURE.txt OUT.html [--cols N] [--rows N]"""
import html
import re
import sys

FG, BG = "#d4d4d4", "#14161b"
BASE16 = [
    "#07080d", "#ffc0b9", "#b3f6c0", "#fce094", "#a6dbff", "#ffcaff", "#8cf8f7", "#eef1f8",
    "#4f5258", "#ffc0b9", "#b3f6c0", "#fce094", "#a6dbff", "#ffcaff", "#8cf8f7", "#ffffff",
]


def color256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


def apply_sgr(params, st):
    p = [int(x) if x else 0 for x in params.split(";")] if params else [0]
    i = 0
    while i < len(p):
        c = p[i]
        if c == 0:
            st.clear()
        elif c == 1:
            st["b"] = True
        elif c == 3:
            st["i"] = True
        elif c == 4:
            st["u"] = True
        elif c == 7:
            st["r"] = True
        elif c == 22:
            st.pop("b", None)
        elif c == 23:
            st.pop("i", None)
        elif c == 24:
            st.pop("u", None)
        elif c == 27:
            st.pop("r", None)
        elif 30 <= c <= 37:
            st["fg"] = BASE16[c - 30]
        elif 90 <= c <= 97:
            st["fg"] = BASE16[c - 90 + 8]
        elif 40 <= c <= 47:
            st["bg"] = BASE16[c - 40]
        elif 100 <= c <= 107:
            st["bg"] = BASE16[c - 100 + 8]
        elif c == 39:
            st.pop("fg", None)
        elif c == 49:
            st.pop("bg", None)
        elif c in (38, 48) and i + 1 < len(p):
            key = "fg" if c == 38 else "bg"
            if p[i + 1] == 5 and i + 2 < len(p):
                st[key] = color256(p[i + 2])
                i += 2
            elif p[i + 1] == 2 and i + 4 < len(p):
                st[key] = "#%02x%02x%02x" % tuple(p[i + 2 : i + 5])
                i += 4
        i += 1


def style(st):
    fg, bg = st.get("fg", FG), st.get("bg", BG)
    if st.get("r"):
        fg, bg = bg, fg
    css = [f"color:{fg}"]
    if bg != BG:
        css.append(f"background:{bg}")
    if st.get("b"):
        css.append("font-weight:bold")
    if st.get("i"):
        css.append("font-style:italic")
    if st.get("u"):
        css.append("text-decoration:underline")
    return ";".join(css)


def render(text, cols, rows):
    token = re.compile(r"\x1b\[([0-9;]*)m|\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|([^\x1b]+)")
    out_lines = []
    st = {}
    for line in text.split("\n")[:rows]:
        parts, width = [], 0
        for m in token.finditer(line):
            if m.group(1) is not None:
                apply_sgr(m.group(1), st)
            elif m.group(2):
                s = m.group(2)
                width += len(s)
                parts.append(f'<span style="{style(st)}">{html.escape(s)}</span>')
        if width < cols:
            parts.append(f'<span style="background:{BG}">{" " * (cols - width)}</span>')
        out_lines.append("".join(parts))
    while len(out_lines) < rows:
        out_lines.append(" " * cols)
    body = "\n".join(out_lines)
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
html,body{{margin:0;background:{BG}}}
pre{{margin:0;padding:8px;font:15px/1.3 'DejaVu Sans Mono','Liberation Mono',monospace;color:{FG};background:{BG};display:inline-block}}
</style></head><body><pre>{body}</pre></body></html>"""


def main():
    args = sys.argv[1:]
    cols = int(args[args.index("--cols") + 1]) if "--cols" in args else 100
    rows = int(args[args.index("--rows") + 1]) if "--rows" in args else 30
    src, dst = args[0], args[1]
    with open(src, encoding="utf-8", errors="replace") as f:
        text = f.read()
    with open(dst, "w", encoding="utf-8") as f:
        f.write(render(text, cols, rows))


if __name__ == "__main__":
    main()
