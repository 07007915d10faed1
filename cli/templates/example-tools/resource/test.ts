  it("saves a note", async () => {
    const { events } = await provider.invoke({ id: "3", toolName: "save_note", arguments: { title: "a", text: "b" }, callContext }).done;
    assert.deepEqual(events[0]?.event.case === "result" && events[0].event.value.payload, { replaced: false });
  });
