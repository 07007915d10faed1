/** The notes, kept in memory for the life of the process. */
const notes = new Map<string, string>();
