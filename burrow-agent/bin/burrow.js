#!/usr/bin/env node
// The `burrow` command. Runs the compiled CLI; build it first with `npx tsc -b burrow-agent/tsconfig.json`.
import { run } from '../dist/cli/main.js';

run();
