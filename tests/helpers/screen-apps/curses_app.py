"""A small full-screen curses program, as urwid-style apps draw: colour pairs, reverse video, bold and
underline, box lines from the alternate character set, a hidden cursor, a scrolling list; each key moves the
selection and scrolls the list (screen conformance)."""
import curses


def main(scr):
    curses.curs_set(0)
    curses.start_color()
    curses.init_pair(1, curses.COLOR_YELLOW, curses.COLOR_BLUE)
    curses.init_pair(2, curses.COLOR_BLACK, curses.COLOR_GREEN)
    curses.init_pair(3, 208, 17)
    h, w = scr.getmaxyx()
    items = [f"item {n:02d} — ünïcödé 中文 ✅" for n in range(60)]
    sel = 0
    top = 0
    while True:
        scr.erase()
        scr.attron(curses.color_pair(1) | curses.A_BOLD)
        scr.addstr(0, 0, " burrow conformance ".ljust(w - 1))
        scr.attroff(curses.color_pair(1) | curses.A_BOLD)
        box = scr.derwin(h - 3, w - 2, 1, 1)
        box.box()
        for row in range(h - 5):
            n = top + row
            if n >= len(items):
                break
            attr = curses.color_pair(2) | curses.A_REVERSE if n == sel else curses.A_UNDERLINE if n % 5 == 0 else 0
            box.addstr(row + 1, 2, items[n][: w - 8], attr)
        scr.addstr(h - 2, 0, "q quits · keys move", curses.color_pair(3))
        scr.refresh()
        key = scr.getch()
        if key == ord("q"):
            break
        sel = (sel + 3) % len(items)
        if sel >= top + h - 5:
            top = sel - (h - 6)
        if sel < top:
            top = sel


curses.wrapper(main)
