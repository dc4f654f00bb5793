import { Alert, Button, Text } from "@mantine/core";
import type { Errors } from "../field-errors";
import { unplacedErrors } from "../field-errors";

/**
 * The form's foot: a refusal of the whole form, the messages no field shows, the confirm
 * button (spinning while confirming, held while a change is being saved) and who sells.
 */
export function ConfirmButton({
  label,
  errors,
  busy,
  updating,
  seller,
}: {
  label: string;
  errors: Errors;
  busy: boolean;
  updating: boolean;
  seller: string;
}) {
  const unplaced = unplacedErrors(errors);
  return (
    <>
      {errors.root && (
        <Alert color="red" variant="light" role="alert">
          {errors.root}
        </Alert>
      )}
      {unplaced !== "" && (
        <Alert color="red" variant="light" role="alert">
          {unplaced}
        </Alert>
      )}
      <Button type="submit" size="md" fullWidth loading={busy} disabled={updating && !busy}>
        {label}
      </Button>
      <Text size="xs" c="dimmed" ta="center">
        {seller} sells through Kassa. Your details go to the seller only.
      </Text>
    </>
  );
}
