import { ResourceNotFound } from "../../kit/api/errors.js";

export class ProductNotFound extends ResourceNotFound {
  constructor() {
    super("Product not found.");
  }
}
