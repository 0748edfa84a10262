#!/usr/bin/env node
// The `ccm-kit` command: dispatches to the sub-commands in commands/.
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2));
