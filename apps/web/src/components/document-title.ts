import { useEffect } from "react";

/** The browser tab's text for a page: its title, then the app's name. */
export const documentTitle = (title: string) => `${title} · Kassa`;

/**
 * Puts the page's title in the browser tab while the page shows, and again whenever the title
 * changes (a product renamed, loaded, or created). Page headers call it, so every page with a
 * heading names its tab.
 */
export function useDocumentTitle(title: string | undefined) {
  useEffect(() => {
    if (title?.trim()) document.title = documentTitle(title.trim());
  }, [title]);
}
