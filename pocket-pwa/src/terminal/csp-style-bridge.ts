/**
 * Lets xterm.js style itself under the relay's CSP (`style-src 'self'`, DESIGN §4.1). xterm 6's DOM renderer
 * writes its cell dimensions, theme colours and scrollbar rules into `<style>` elements it creates at run time;
 * CSP treats those as inline styles and blocks them, which leaves the terminal in a proportional font with
 * wrong cell widths. Constructed stylesheets (`adoptedStyleSheets`) are not subject to CSP, so this mirrors
 * the text of every `<style>` element inside the terminal's host into one constructed sheet each, and keeps
 * it in sync as xterm rewrites them (theme and font-size changes).
 */

/** Upper bound on mirrored sheets: xterm creates three per terminal; the view holds one terminal. */
export const MAX_MIRRORED_STYLES = 16;

export function bridgeTerminalStyles(host: HTMLElement): () => void {
  const doc = host.ownerDocument;
  const sheets = new Map<HTMLStyleElement, CSSStyleSheet>();
  const sync = () => {
    for (const el of host.querySelectorAll('style')) {
      let sheet = sheets.get(el);
      if (sheet === undefined) {
        if (sheets.size >= MAX_MIRRORED_STYLES) break;
        sheet = new CSSStyleSheet();
        sheets.set(el, sheet);
        doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
      }
      sheet.replaceSync(el.textContent ?? '');
    }
    for (const [el, sheet] of sheets) {
      if (!el.isConnected) {
        sheets.delete(el);
        doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== sheet);
      }
    }
  };
  const observer = new MutationObserver(sync);
  observer.observe(host, { subtree: true, childList: true, characterData: true });
  sync();
  return () => {
    observer.disconnect();
    const mine = new Set(sheets.values());
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => !mine.has(s));
    sheets.clear();
  };
}
