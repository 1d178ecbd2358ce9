/**
 * The Web App Manifest (DESIGN §7 "Installable"). Kept as data so vite.config.ts and a test share one copy.
 * `display: standalone` plus the iOS meta tags in index.html make Pocket open like an app from the home screen.
 */
export const APP_MANIFEST = {
  name: 'Burrow Pocket',
  short_name: 'Pocket',
  description: 'Answer the terminals you left at home.',
  id: '/',
  start_url: '/',
  scope: '/',
  display: 'standalone' as const,
  orientation: 'any' as const,
  background_color: '#1b1d23',
  theme_color: '#1b1d23',
  icons: [
    { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
    { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
    { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
  ],
};
