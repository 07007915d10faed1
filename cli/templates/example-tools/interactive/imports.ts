import { closeSync, openSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { ReadStream, WriteStream } from "node:tty";
import { ToolError } from "harness-tool";
