/** What every provider's widget takes: the site key, the theme, and where its token goes. */
export interface CaptchaWidgetProps {
  siteKey: string;
  theme: "light" | "dark";
  /** A fresh token, or null when the last one expired or the challenge failed. */
  onToken: (token: string | null) => void;
  onError: (message: string) => void;
}

export const CHALLENGE_FAILED = "The challenge could not be loaded or failed. Reload the page and try again.";
