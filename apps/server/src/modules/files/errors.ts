import { ResourceNotFound } from "../../kit/api/errors.js";

export class FileNotFound extends ResourceNotFound {
  constructor() {
    super("File not found.");
  }
}
