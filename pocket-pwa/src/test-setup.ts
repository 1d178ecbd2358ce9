// IndexedDB for the pairing store's tests: happy-dom has none, fake-indexeddb is a full in-memory one.
import 'fake-indexeddb/auto';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => cleanup());
