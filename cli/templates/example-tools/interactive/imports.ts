import { interactiveTool } from "harness-tool";
import { askUserTool } from "./gen/{{name}}/v1/{{name}}_tool.js";
