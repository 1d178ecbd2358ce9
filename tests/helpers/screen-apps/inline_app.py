"""An Ink-style inline redraw: a block of lines under the prompt, erased line by line (CSI 2K, CSI 1A) and
drawn again on every update, with colours and a spinner, as Ink's log-update does (screen conformance)."""
import os, sys, tty

tty.setcbreak(0)
out = sys.stdout
frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
lines = 0


def draw(n):
    global lines
    out.write("\x1b[2K\x1b[1A" * lines + "\x1b[2K\r")
    block = [
        f"\x1b[36m{frames[n % len(frames)]}\x1b[0m Working on step {n}…",
        f"  \x1b[1mdone:\x1b[22m {'█' * n}{'░' * (10 - n)} {n * 10}%",
        f"  \x1b[2mlast: ✅ compiled {n} files\x1b[0m",
    ]
    out.write("\n".join(block))
    out.flush()
    lines = len(block) - 1


out.write("$ agent run\n")
n = 0
draw(n)
while os.read(0, 64):
    n = min(n + 1, 10)
    draw(n)
