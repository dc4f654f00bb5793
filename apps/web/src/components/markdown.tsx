import { Typography } from "@mantine/core";
import Markdown, { type Components } from "react-markdown";

const components: Components = {
  // A link in a description opens beside the page and passes nothing of it on.
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer nofollow" />,
};

/**
 * Markdown written by a merchant (a product's description), rendered as React elements: the
 * product editor's preview and the checkout page show it the same way. Nothing is injected
 * as HTML: HTML typed into the text is dropped (`skipHtml`), and react-markdown's default URL
 * check leaves links and images only their safe protocols (no `javascript:`).
 */
export function MarkdownText({ children }: { children: string }) {
  return (
    <Typography>
      <Markdown skipHtml components={components}>
        {children}
      </Markdown>
    </Typography>
  );
}

export default MarkdownText;
