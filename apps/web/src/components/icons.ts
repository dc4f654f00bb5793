import { IconInbox } from "@tabler/icons-react";

export { IconInbox };
/** A Tabler icon component. */
export type Icon = typeof IconInbox;
