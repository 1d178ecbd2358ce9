"""Writes a fixed first phase of terminal output, then the next phase each time a key arrives (screen
conformance, tests/integration/screen-conformance.test.ts). The phases come as JSON on argv[1]: a list of
strings; the last one repeats. Keys are read unechoed and unbuffered (cbreak), so typing adds no output."""
import json, os, sys, termios, tty

phases = json.loads(sys.argv[1])
tty.setcbreak(0)
out = sys.stdout.buffer
out.write(phases[0].encode('utf-8'))
out.flush()
i = 1
while True:
    if not os.read(0, 64):
        break
    out.write(phases[min(i, len(phases) - 1)].encode('utf-8'))
    out.flush()
    i += 1
