import { useEffect } from 'react';

/**
 * Sizes the app to the visual viewport, so the on-screen keyboard shrinks the terminal instead of scrolling
 * the page sideways or pushing the key bar off screen (issue 5 "no horizontal jumping"). Sets `--app-height`
 * on the root element and pins the layout viewport's scroll to the left edge.
 */
export function useVisualViewport(): void {
  useEffect(() => {
    const vv = window.visualViewport;
    if (!vv) return;
    const root = document.documentElement;
    const apply = () => {
      root.style.setProperty('--app-height', `${Math.round(vv.height)}px`);
      root.style.setProperty('--app-top', `${Math.round(vv.offsetTop)}px`);
      if (window.scrollX !== 0) window.scrollTo(0, window.scrollY);
    };
    apply();
    vv.addEventListener('resize', apply);
    vv.addEventListener('scroll', apply);
    return () => {
      vv.removeEventListener('resize', apply);
      vv.removeEventListener('scroll', apply);
      root.style.removeProperty('--app-height');
      root.style.removeProperty('--app-top');
    };
  }, []);
}
