  async saveNote(input, context) {
    const replaced = notes.has(input.title);
    notes.set(input.title, input.text);
    context.log.info("saved a note", { title: input.title, replaced });
    return { replaced };
  },
