  it("reads a note that does not exist", async () => {
    const call = provider.invoke({ id: "1", toolName: "read_note", arguments: { title: "nothing" }, callContext });
    const { events } = await call.done;
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]?.event.case === "result" && events[0].event.value.payload, { found: false, text: "" });
  });

  it("refuses arguments that do not match the input schema", async () => {
    const { events } = await provider.invoke({ id: "2", toolName: "read_note", arguments: { title: 42 }, callContext }).done;
    assert.equal(events[0]?.event.case, "error");
  });
