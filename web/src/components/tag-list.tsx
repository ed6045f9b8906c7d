/** A device's tags, small; each one filters the module list by that tag. */
export function TagList({ tags, onTag }: { tags: string[]; onTag?: (tag: string) => void }) {
  if (tags.length === 0) return null;
  return (
    <ul class="tags" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag}>
          {onTag ? (
            <button type="button" class="tag" title={`Show modules tagged ${tag}`} onClick={() => onTag(tag)}>
              {tag}
            </button>
          ) : (
            <span class="tag">{tag}</span>
          )}
        </li>
      ))}
    </ul>
  );
}
