export const fixture = 'app';
