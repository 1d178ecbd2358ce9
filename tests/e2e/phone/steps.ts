/**
 * What a locator is, as data: the page driver (phone.ts) sends a chain of these steps into the page, where
 * in-page.ts resolves it against the live DOM. Kept free of DOM and Node types: both sides import it.
 */

/** A text or accessible-name match with Playwright's meaning: a string matches case-insensitively as a
 * substring of the whitespace-normalised text unless `exact`; a regular expression is tested as written. */
export type TextMatch =
  | { readonly kind: 'string'; readonly value: string; readonly exact: boolean }
  | { readonly kind: 'regex'; readonly source: string; readonly flags: string };

export type Step =
  /** Elements with this ARIA role (explicit or implicit) and, if given, accessible name; hidden ones never. */
  | { readonly by: 'role'; readonly role: string; readonly name: TextMatch | null }
  /** The innermost elements whose text matches. */
  | { readonly by: 'text'; readonly text: TextMatch }
  | { readonly by: 'css'; readonly selector: string }
  /** Keeps the elements that contain a match for `chain` (resolved inside each of them). */
  | { readonly by: 'has'; readonly chain: readonly Step[] }
  /** The index-th match (negative counts from the end). */
  | { readonly by: 'nth'; readonly index: number };

/** What the page can be asked about a chain in one round trip. */
export type Query =
  | { readonly op: 'count'; readonly chain: readonly Step[] }
  /** How many match and how many of those are visible (a non-empty box, not visibility: hidden). */
  | { readonly op: 'state'; readonly chain: readonly Step[] }
  | { readonly op: 'text'; readonly chain: readonly Step[] }
  | { readonly op: 'texts'; readonly chain: readonly Step[] }
  | { readonly op: 'value'; readonly chain: readonly Step[] }
  | { readonly op: 'attr'; readonly chain: readonly Step[]; readonly name: string }
  | { readonly op: 'box'; readonly chain: readonly Step[] }
  | { readonly op: 'focus'; readonly chain: readonly Step[] }
  /** Tags the one match with a `data-e2e` id and scrolls it into view, so an engine can act on it by CSS. */
  | { readonly op: 'mark'; readonly chain: readonly Step[] }
  /**
   * Where the one match is and whether a tap at its centre would reach it (the topmost element there is it or
   * inside it); and, from now until the next `hit`, records whether a pointer, touch or click event reaches it.
   */
  | { readonly op: 'hit'; readonly chain: readonly Step[] }
  /** Whether a pointer, touch or click event reached the match of the last `hit`, in this document. */
  | { readonly op: 'reached' };

/** The answer to `hit`. */
export interface Hit {
  readonly box: Box;
  /** A tap at the box's centre (clipped to the viewport) lands on the element. */
  readonly onTop: boolean;
  /** This document's id: another one after a tap means the tap navigated. */
  readonly document: string;
}

/** The answer to `reached`. */
export interface Reached {
  readonly reached: boolean;
  readonly document: string;
}

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The attribute `mark` sets; engines act on `[data-e2e="<id>"]`. */
export const MARK_ATTRIBUTE = 'data-e2e';
/** The global the in-page script installs itself as. */
export const IN_PAGE_GLOBAL = '__burrowE2E';
/** What a query answers when the page has no in-page script yet (a new document). */
export const NOT_INSTALLED = '__burrowE2E:not-installed';
