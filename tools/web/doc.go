// Package web gives an agent the network tools WebFetch and WebSearch.
//
// [Fetch] (WebFetch) GETs an http(s) URL, keeps the page's main article
// (a Go port of Mozilla's Readability) and returns it as Markdown, with
// size and time caps, host allow and deny lists, and an SSRF guard on by
// default that checks every address both before the request and when the
// socket connects. [Search] (WebSearch) runs a query through a
// [SearchBackend]: [Brave] or [Tavily]. Both tools are SideEffect.
//
//	fetch, err := web.NewFetch(web.WithDenyHosts("internal.example"))
//	if err != nil { … }
//	brave, err := web.NewBrave() // BRAVE_API_KEY from the environment
//	if err != nil { … }
//	search, err := web.NewSearch(brave)
//	agent, err := helikon.NewAgent("researcher", model, helikon.WithTools(fetch, search))
package web
