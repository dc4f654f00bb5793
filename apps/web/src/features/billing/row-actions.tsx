import { ActionIcon, Anchor, Modal } from "@mantine/core";
import { IconTrash } from "@tabler/icons-react";
import { useQueryClient } from "@tanstack/react-query";
import { Fragment, type ReactNode } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { invalidate, V1Error, v1 } from "../../lib/v1";

/** What a list page is editing: a new row, an existing one, or nothing (its editor closed). */
export type Editing<T> = T | "new" | null;

/** A row's name in a list: a button that opens its editor for whoever may write, text otherwise. */
export function EditableName({
  canWrite,
  onEdit,
  children,
}: {
  canWrite: boolean;
  onEdit: () => void;
  children: ReactNode;
}) {
  if (!canWrite) return <>{children}</>;
  return (
    <Anchor component="button" onClick={onEdit}>
      {children}
    </Anchor>
  );
}

/** A row's red trash button, labelled for screen readers ("Delete Mug"); nothing when hidden. */
export function RowDeleteButton({
  show,
  label,
  onClick,
}: {
  show: boolean;
  label: string;
  onClick: () => void;
}) {
  if (!show) return null;
  return (
    <ActionIcon variant="subtle" color="red" aria-label={label} onClick={onClick}>
      <IconTrash size={16} />
    </ActionIcon>
  );
}

/**
 * A list page's create-or-edit dialog. The form inside is rebuilt for each row it opens on, so
 * no value of one row is left in the form of the next.
 */
export function EditorModal<T extends { id: string }>({
  editing,
  onClose,
  newTitle,
  editTitle,
  children,
}: {
  editing: Editing<T>;
  onClose: () => void;
  newTitle: string;
  editTitle: string;
  children: (row: T | undefined) => ReactNode;
}) {
  return (
    <Modal
      opened={editing !== null}
      onClose={onClose}
      title={editing === "new" ? newTitle : editTitle}
      size="lg"
    >
      {editing !== null && (
        <Fragment key={editing === "new" ? "new" : editing.id}>
          {children(editing === "new" ? undefined : editing)}
        </Fragment>
      )}
    </Modal>
  );
}

/**
 * Asks before `DELETE /v1/{resource}/{id}`, then refreshes the organization's lists of that
 * resource. A refusal is shown in the server's words and the dialog stays open; `failure` is
 * shown when there was no answer to read.
 */
export function DeleteRowDialog<T extends { id: string }>({
  organizationId,
  resource,
  row,
  onClose,
  title,
  confirmLabel,
  failure,
  children,
}: {
  organizationId: string;
  resource: string;
  row: T | null;
  onClose: () => void;
  title: string;
  confirmLabel: string;
  failure: string;
  children: ReactNode;
}) {
  const queryClient = useQueryClient();
  return (
    <ConfirmDialog
      opened={row !== null}
      onClose={onClose}
      title={title}
      confirmLabel={confirmLabel}
      onConfirm={async () => {
        if (!row) return null;
        try {
          await v1(organizationId, `/${resource}/${row.id}`, { method: "DELETE" });
          await invalidate(queryClient, organizationId, resource);
          return null;
        } catch (e) {
          return e instanceof V1Error ? e : failure;
        }
      }}
    >
      {children}
    </ConfirmDialog>
  );
}
