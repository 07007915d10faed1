import path from "node:path";
