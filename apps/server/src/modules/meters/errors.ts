import { ResourceNotFound } from "../../kit/api/errors.js";

export class MeterNotFound extends ResourceNotFound {
  constructor() {
    super("Meter not found.");
  }
}
