import { Button, Stack } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { type ReactNode, useState } from "react";
import { PageHeader } from "../../components/states";

/** What a list page is editing: a new row, an existing one, or nothing (its editor closed). */
export type Editing<T> = T | "new" | null;

/** The page's "New ..." button: its text and what it opens. */
export interface NewAction {
  label: string;
  onClick: () => void;
}

/**
 * A dashboard list page: its title (the one h1) with what the page is for and, on the right,
 * its "New ..." button (`newAction`, left out for who may not write) or other `actions`; below,
 * the page's filters, table and dialogs (`children`).
 */
export function ListPage({
  title,
  description,
  newAction,
  actions,
  maw = 1100,
  children,
}: {
  title: string;
  description: ReactNode;
  newAction?: NewAction | false;
  actions?: ReactNode;
  maw?: number;
  children: ReactNode;
}) {
  return (
    <Stack gap="lg" maw={maw}>
      <PageHeader
        title={title}
        description={description}
        actions={
          newAction ? (
            <Button leftSection={<IconPlus size={16} />} onClick={newAction.onClick}>
              {newAction.label}
            </Button>
          ) : (
            actions
          )
        }
      />
      {children}
    </Stack>
  );
}

/** What a list page's editor dialog is open on (`editing`), with the ways to open and close it. */
export interface Editor<T> {
  editing: Editing<T>;
  /** Opens the editor on a new row. */
  create: () => void;
  edit: (row: T) => void;
  close: () => void;
}

/** The state of a list page's create-or-edit dialog (`EditorModal`), closed at first. */
export function useEditor<T>(): Editor<T> {
  const [editing, setEditing] = useState<Editing<T>>(null);
  return {
    editing,
    create: () => setEditing("new"),
    edit: setEditing,
    close: () => setEditing(null),
  };
}

/** The row a dialog of a list page is open on (to delete it, to show its grants), or null when closed. */
export interface RowDialog<T> {
  row: T | null;
  open: (row: T) => void;
  close: () => void;
}

/** The state of a dialog that opens on one row of a list (`DeleteRowDialog`, a row's details), closed at first. */
export function useRowDialog<T>(): RowDialog<T> {
  const [row, setRow] = useState<T | null>(null);
  return { row, open: setRow, close: () => setRow(null) };
}
