import { createInterface } from "node:readline/promises";
