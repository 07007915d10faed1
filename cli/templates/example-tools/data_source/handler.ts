  async readNote(input) {
    const text = notes.get(input.title);
    return { found: text !== undefined, text: text ?? "" };
  },
