/** What the list calls a Burrow: this phone's own name for it if the owner set one, else the Burrow's. */
export function displayName(burrowName: string, localName: string | undefined): string {
  return localName !== undefined && localName !== '' ? localName : burrowName;
}
