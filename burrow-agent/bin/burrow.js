#!/usr/bin/env node
// The `burrow` command. Runs the compiled CLI: in a checkout tsc's output (`npm run build`), in the installed
// package (`npm run package`, burrow-agent/packaging/) the bundle that sits at the same path.
import { run } from '../dist/cli/main.js';

run();
