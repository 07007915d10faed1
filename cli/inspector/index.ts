/**
 * The inspector's door: a provider launched and held for the page (`InspectSession`), and the local
 * web server that serves the page and its API (`startInspectServer`). The server's parts, the page and
 * what the two say to each other live behind it in `server/`, `page/` and `protocol/`.
 */
export { InspectSession, type InspectSessionOptions } from "./server/session.js";
export { startInspectServer, type InspectServer, type InspectServerOptions } from "./server/http-server.js";
