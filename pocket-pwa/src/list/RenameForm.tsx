import { useState } from 'react';

/** MAX_LABEL_CHARS in protocol: the Burrow would refuse a longer name anyway. */
const MAX_NAME_CHARS = 64;

/**
 * The inline "rename" form shared by a Burrow's header and a session row. It owns the draft (starting from
 * `initial` each time it opens) and hands the raw text to `onSave`; the caller decides what an empty name means.
 */
export function RenameForm({
  label,
  initial,
  onSave,
  onDone,
}: {
  label: string;
  initial: string;
  onSave: (draft: string) => void;
  onDone: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSave(draft);
        onDone();
      }}
    >
      <input
        aria-label={label}
        value={draft}
        maxLength={MAX_NAME_CHARS}
        dir="auto"
        onChange={(e) => setDraft(e.target.value)}
      />
      <button type="submit">Save</button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}
