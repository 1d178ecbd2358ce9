import { useRef, useState } from 'react';

/** Longest line the composition input holds (one paste-sized chunk; the protocol chunks larger input). */
export const MAX_COMPOSITION_CHARS = 8192;

/**
 * A normal text field beside the terminal: IME, dictation and autocorrect work in it as in any app, and Enter
 * sends the line plus a carriage return. Enter that commits an IME composition does not send (isComposing /
 * keyCode 229, which Safari reports for the committing keydown).
 */
export function CompositionInput({ onSend }: { onSend(text: string): void }) {
  const [value, setValue] = useState('');
  const composing = useRef(false);
  const send = () => {
    onSend(`${value}\r`);
    setValue('');
  };
  return (
    <form
      className="compose"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <input
        aria-label="Type a line to send"
        placeholder="Type here, Enter sends"
        value={value}
        maxLength={MAX_COMPOSITION_CHARS}
        enterKeyHint="send"
        dir="auto"
        onChange={(e) => setValue(e.target.value)}
        onCompositionStart={() => {
          composing.current = true;
        }}
        onCompositionEnd={() => {
          composing.current = false;
        }}
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          e.preventDefault();
          if (composing.current || e.nativeEvent.isComposing || e.keyCode === 229) return;
          send();
        }}
      />
      <button type="submit" aria-label="Send line">
        ⏎
      </button>
    </form>
  );
}
