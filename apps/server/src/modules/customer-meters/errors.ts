import { ResourceNotFound } from "../../kit/api/errors.js";

export class CustomerMeterNotFound extends ResourceNotFound {
  constructor() {
    super("Customer meter not found.");
  }
}
