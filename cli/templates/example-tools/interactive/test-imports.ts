import { askUser } from "../src/handlers.js";
