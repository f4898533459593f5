package sourcetext

import "strings"

// collectionTitles are the display names of the collections seed 003's
// knowledge base has, and of their usual synonyms.
var collectionTitles = map[string]string{
	"catalog": "Product Catalog", "catalogue": "Product Catalog", "products": "Product Catalog", "product_catalog": "Product Catalog",
	"faq": "FAQ", "faqs": "FAQ",
	"troubleshooting": "Troubleshooting Guide", "troubleshooting_guide": "Troubleshooting Guide",
	"web_search": "Web Search", // source.CollectionWeb
}

// CollectionTitle is a collection's display name, as seed 003's
// formatted_citations name a knowledge base's records: "Product Catalog"
// for "catalog", "FAQ" for "faq", "Troubleshooting Guide" for
// "troubleshooting"; another name is title-cased, its underscores and
// hyphens made spaces ("return_policy": "Return Policy"). White space is
// folded and control characters dropped.
func CollectionTitle(collection string) string {
	c := Clean(collection)
	if t, ok := collectionTitles[strings.ToLower(c)]; ok {
		return t
	}
	words := strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(c))
	for i, w := range words {
		r := []rune(w)
		words[i] = strings.ToUpper(string(r[0])) + string(r[1:])
	}
	return strings.Join(words, " ")
}

// Attribution is how an answer names a collection it draws on, as seed
// 003's answers do: "According to our product catalog", "According to
// our FAQ", "From our troubleshooting guide" (a guide is drawn from).
// Words of the display name (CollectionTitle) are lower case but for
// acronyms.
func Attribution(collection string) string {
	words := strings.Fields(CollectionTitle(collection))
	for i, w := range words {
		if w != strings.ToUpper(w) {
			words[i] = strings.ToLower(w)
		}
	}
	name := "our " + strings.Join(words, " ")
	if n := len(words); n > 0 && words[n-1] == "guide" {
		return "From " + name
	}
	return "According to " + name
}
