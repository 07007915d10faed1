  // ask_user: the prompt the kernel's frontend shows (its Preview), and the terminal fallback.
  askUser: askUser.invoke,
  previewAskUser: askUser.prompt,
