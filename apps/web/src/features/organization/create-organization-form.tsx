import { zodResolver } from "@hookform/resolvers/zod";
import {
  type CreateOrganizationValues,
  createOrganizationSchema,
  slugify,
  slugSchema,
} from "@kassa/contracts/organization";
import { Alert, Button, Loader, Stack, Text, TextInput } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { IconCircleCheck } from "@tabler/icons-react";
import { useEffect, useRef, useState } from "react";
import { useForm } from "react-hook-form";
import type { ServerError } from "../../lib/auth-client";
import "../../lib/dashboard-messages";
import { applyServerError, serverErrorMessage } from "../../lib/server-errors";

/** Which field each of the server's create refusals concerns. */
const FIELD_BY_CODE = {
  ORGANIZATION_ALREADY_EXISTS: "slug",
  ORGANIZATION_SLUG_ALREADY_TAKEN: "slug",
  SLUG_IS_TAKEN: "slug",
} as const;

type SlugState =
  | { kind: "idle" }
  | { kind: "checking"; slug: string }
  | { kind: "free"; slug: string }
  | { kind: "refused"; slug: string; message: string };

export interface CreateOrganizationFormProps {
  /** `POST /organization/check-slug`: null when free, else the server's refusal. */
  checkSlug: (slug: string) => Promise<ServerError | null>;
  /** Creates the organization; resolves with the server's refusal, or null when it succeeded. */
  onSubmit: (values: CreateOrganizationValues) => Promise<ServerError | null>;
  /** Milliseconds of quiet typing before the slug is checked. */
  checkDelay?: number;
  submitLabel?: string;
}

/**
 * Name and slug. The slug follows the name until the person edits it; each slug that passes
 * the local rules is checked with the server once typing pauses, and the answer is shown at
 * the field (the server checks again on create).
 */
export function CreateOrganizationForm({
  checkSlug,
  onSubmit,
  checkDelay = 400,
  submitLabel = "Create organization",
}: CreateOrganizationFormProps) {
  const {
    register,
    handleSubmit,
    setError,
    setValue,
    watch,
    formState: { errors, isSubmitting, dirtyFields },
  } = useForm<CreateOrganizationValues>({
    resolver: zodResolver(createOrganizationSchema),
    defaultValues: { name: "", slug: "" },
  });
  const slugEdited = useRef(false);
  const name = watch("name");
  const slug = watch("slug");
  const [debouncedSlug] = useDebouncedValue(slug, checkDelay);
  const [slugState, setSlugState] = useState<SlugState>({ kind: "idle" });

  // The slug follows the name until the person types a slug of their own.
  useEffect(() => {
    if (!slugEdited.current) setValue("slug", slugify(name), { shouldDirty: dirtyFields.slug === true });
  }, [name, setValue, dirtyFields.slug]);

  useEffect(() => {
    if (!debouncedSlug || !slugSchema.safeParse(debouncedSlug).success) {
      setSlugState({ kind: "idle" });
      return;
    }
    let current = true;
    setSlugState({ kind: "checking", slug: debouncedSlug });
    void checkSlug(debouncedSlug).then((refusal) => {
      if (!current) return;
      setSlugState(
        refusal
          ? { kind: "refused", slug: debouncedSlug, message: serverErrorMessage(refusal) }
          : { kind: "free", slug: debouncedSlug },
      );
    });
    return () => {
      current = false;
    };
  }, [debouncedSlug, checkSlug]);

  const submit = handleSubmit(async (values) => {
    const error = await onSubmit(values);
    if (error) applyServerError(error, setError, FIELD_BY_CODE);
  });

  // The live check's answer counts only for the slug now in the field.
  const live = slugState.kind !== "idle" && slugState.slug === slug ? slugState : null;
  const slugError = errors.slug?.message ?? (live?.kind === "refused" ? live.message : undefined);
  const slugField = register("slug", {
    onChange: () => {
      slugEdited.current = true;
    },
  });

  return (
    <form onSubmit={submit} noValidate aria-label="Create an organization">
      <Stack gap="md">
        {errors.root?.server && (
          <Alert color="red" role="alert" title="Could not create the organization">
            {errors.root.server.message}
          </Alert>
        )}
        <TextInput
          label="Name"
          description="Your business or project, as customers will see it."
          autoComplete="organization"
          required
          {...register("name")}
          error={errors.name?.message}
        />
        <TextInput
          label="Slug"
          description={
            live?.kind === "free" && !errors.slug ? (
              <Text component="span" size="xs" c="teal">
                <IconCircleCheck size={12} aria-hidden style={{ verticalAlign: "-2px" }} /> {slug} is
                available.
              </Text>
            ) : (
              `Your dashboard's address: /dashboard/${slug || "your-slug"}`
            )
          }
          required
          autoCapitalize="none"
          spellCheck={false}
          rightSection={
            live?.kind === "checking" ? <Loader size={14} aria-label="Checking the slug" /> : null
          }
          {...slugField}
          error={slugError}
        />
        <Button type="submit" loading={isSubmitting} disabled={live?.kind === "refused"}>
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
