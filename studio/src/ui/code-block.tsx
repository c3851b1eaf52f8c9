import { useLayoutEffect, useRef, useState } from 'react';

/**
 * A command, or other text to type or paste as it is, in the shared `.code-block` style. Its
 * lines are never wrapped: a line wider than the box scrolls sideways inside it (styles.css
 * says why). While it does, the box takes focus, so that the keyboard scrolls it too
 * (WCAG 2.1.1); a box with nothing hidden is no stop for the Tab key.
 */
export function CodeBlock(props: { children: string; className?: string }) {
  const box = useRef<HTMLPreElement>(null);
  const [scrolls, setScrolls] = useState(false);

  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setScrolls(element.scrollWidth > element.clientWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  return (
    <pre
      ref={box}
      className={props.className ? `code-block ${props.className}` : 'code-block'}
      tabIndex={scrolls ? 0 : undefined}
    >
      <code>{props.children}</code>
    </pre>
  );
}
