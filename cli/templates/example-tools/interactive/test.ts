  it("shows ask_user's question as its prompt: the Preview the kernel's frontend shows the person", async () => {
    const { preview } = await provider.preview({ id: "5", toolName: "ask_user", arguments: { question: "Ship it?" }, callContext });
    assert.equal(preview?.root?.node.case === "text" && preview.root.node.value.content, "Ship it?");
  });

  it("takes a person's answer only when it matches ask_user's output schema, as the kernel does", () => {
    assert.deepEqual(askUser.answer({ answer: "yes, ship" }), { answer: "yes, ship" });
    assert.throws(() => askUser.answer({ answer: 42 }), /does not match the output schema/);
  });
