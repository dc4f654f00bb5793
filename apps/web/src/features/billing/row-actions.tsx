import { ActionIcon, Anchor, Modal, type ModalProps } from "@mantine/core";
import { IconTrash } from "@tabler/icons-react";
import { useQueryClient } from "@tanstack/react-query";
import { Fragment, type ReactNode } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { invalidate, V1Error, v1 } from "../../lib/v1";
import type { Editor, RowDialog } from "./list-page";

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
 * A dialog with a form: the form is built when the dialog opens and dropped when it closes, so
 * each opening starts from the form's defaults.
 */
export function FormModal({
  opened,
  onClose,
  title,
  size = "lg",
  children,
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  size?: ModalProps["size"];
  children: ReactNode;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} size={size}>
      {opened && children}
    </Modal>
  );
}

/**
 * A list page's create-or-edit dialog, open on what `editor` (`useEditor`) is editing. The
 * form inside is rebuilt for each row it opens on, so no value of one row is left in the form
 * of the next.
 */
export function EditorModal<T extends { id: string }>({
  editor: { editing, close },
  newTitle,
  editTitle,
  size,
  children,
}: {
  editor: Editor<T>;
  newTitle: string;
  editTitle: string;
  size?: ModalProps["size"];
  children: (row: T | undefined) => ReactNode;
}) {
  return (
    <FormModal
      opened={editing !== null}
      onClose={close}
      title={editing === "new" ? newTitle : editTitle}
      size={size}
    >
      {editing !== null && (
        <Fragment key={editing === "new" ? "new" : editing.id}>
          {children(editing === "new" ? undefined : editing)}
        </Fragment>
      )}
    </FormModal>
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
  dialog: { row, close },
  title,
  confirmLabel,
  failure,
  children,
}: {
  organizationId: string;
  resource: string;
  /** The row to delete (`useRowDialog`). */
  dialog: RowDialog<T>;
  title: string;
  confirmLabel: string;
  failure: string;
  children: ReactNode;
}) {
  const queryClient = useQueryClient();
  return (
    <ConfirmDialog
      opened={row !== null}
      onClose={close}
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
