import { ResourceNotFound } from "../../kit/api/errors.js";

export class EventNotFound extends ResourceNotFound {
  constructor() {
    super("Event not found.");
  }
}
