// The task tools over an in-memory list that lives as long as the provider process.
import { ToolError } from "harness-tool";
import type { TaskHandlers, TaskCreateOutput } from "./gen/examples/task/v1/task_tool.js";

type Task = TaskCreateOutput["task"];

/** Creates the handlers with their own, empty task list. */
export function createTaskHandlers(): TaskHandlers {
  const tasks = new Map<string, Task>();
  let next = 1;
  return {
    async taskCreate(input) {
      const task: Task = { id: `t${next++}`, title: input.title, status: "pending" };
      tasks.set(task.id, task);
      return { task };
    },
    async taskUpdate(input) {
      const task = tasks.get(input.id);
      if (!task) throw new ToolError("not_found", `task_update: there is no task ${JSON.stringify(input.id)}`);
      const updated: Task = {
        ...task,
        ...(input.status !== undefined ? { status: input.status } : {}),
        ...(input.title !== undefined ? { title: input.title } : {}),
      };
      tasks.set(updated.id, updated);
      return { task: updated };
    },
    async taskList(input) {
      return { tasks: [...tasks.values()].filter((t) => input.status === undefined || t.status === input.status) };
    },
  };
}

/** The task provider's handlers. */
export const handlers: TaskHandlers = createTaskHandlers();
